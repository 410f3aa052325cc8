import type { JobConfig } from './job-config.js';

/**
 * The configuration as a log line may show it: paths, URLs, settings and the setting each key
 * comes from, never a key nor a key file's path (nor the CA's PEM text, which is only noise), and
 * the egress proxy without its credentials.
 *
 * @example
 * logger.info({ config: describeConfig(config) }, 'configured');
 */
export function describeConfig(config: JobConfig) {
  return {
    db: config.db,
    reportsDir: config.reportsDir,
    sync: { ...config.sync },
    recon: config.recon,
    ...(config.metricsFile === undefined ? {} : { metricsFile: config.metricsFile }),
    // The proxy by `shown`, never its `url`, which may hold a user and password.
    ...(config.proxy === undefined
      ? {}
      : {
          proxy: {
            shown: config.proxy.shown,
            from: config.proxy.from,
            noProxy: config.proxy.noProxy,
          },
        }),
    merchants: config.merchants.map((m) => ({
      name: m.name,
      baseUrl: m.baseUrl,
      // Where the key comes from by its setting: a key file's path is never logged (a key pasted
      // where the path belongs would be printed).
      keyFrom: m.keyOrigin,
      ...(m.caFile === undefined ? {} : { caFile: m.caFile }),
      ...(m.merchantId === undefined ? {} : { merchantId: m.merchantId }),
    })),
  };
}
