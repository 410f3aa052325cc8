import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ConfigFile } from '../config/config-file-schema.js';
import type { DemoLayout } from './demo-folder.js';

/** A merchant of the running sandbox, as it announces itself. */
export interface SandboxMerchant {
  readonly merchantId: string;
  readonly apiKey: string;
  readonly currency: string;
  readonly journalFile?: string;
}

/** A sandbox merchant as the demo's config file names it; its key stays in `apiKeyFile`. */
export interface DemoMerchant {
  /** The merchant's name in the config file: its currency, lower case (`usd`). */
  readonly name: string;
  readonly merchantId: string;
  readonly currency: string;
  /** Absolute path of the file holding its key (mode 0600). */
  readonly apiKeyFile: string;
  /** Its order journal, when the sandbox generated a world. */
  readonly journalFile: string | undefined;
}

/**
 * Write each merchant's key to a file only its owner can read, and the config file
 * `cardsync run --config` reads, naming the sandbox's merchants, CA, the mirror and the reports.
 * Paths in the file are relative to it, so the folder still works when moved; the keys are
 * never in it, as the job refuses an inline key.
 */
export async function writeDemoConfig(
  layout: DemoLayout,
  sandbox: { readonly baseUrl: string; readonly caFile: string },
  merchants: readonly SandboxMerchant[],
): Promise<DemoMerchant[]> {
  const taken = new Set<string>();
  const configured: DemoMerchant[] = [];
  for (const [i, merchant] of merchants.entries()) {
    const base = merchant.currency.toLowerCase();
    const name = taken.has(base) ? `${base}-${i + 1}` : base;
    taken.add(name);
    const apiKeyFile = join(layout.sandboxDir, `${name}.key`);
    // 'wx': the folder is fresh, so an existing file is a mistake, not something to overwrite.
    await writeFile(apiKeyFile, `${merchant.apiKey}\n`, { mode: 0o600, flag: 'wx' });
    configured.push({
      name,
      merchantId: merchant.merchantId,
      currency: merchant.currency,
      apiKeyFile,
      journalFile: merchant.journalFile,
    });
  }
  const inDir = (file: string) => relative(layout.dir, file);
  const config: ConfigFile = {
    db: inDir(layout.db),
    reportsDir: inDir(layout.reportsDir),
    merchants: configured.map((m) => ({
      name: m.name,
      baseUrl: sandbox.baseUrl,
      apiKeyFile: inDir(m.apiKeyFile),
      caFile: inDir(sandbox.caFile),
      merchantId: m.merchantId,
    })),
  };
  await writeFile(layout.configFile, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx' });
  return configured;
}
