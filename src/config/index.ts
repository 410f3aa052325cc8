export { ConfigError } from './config-error.js';
export { describeConfig } from './describe-config.js';
export type {
  ConfigFlags,
  ConfigInputs,
  JobConfig,
  MerchantSource,
  SyncSettings,
} from './job-config.js';
export { DEFAULT_DB, DEFAULT_REPORTS_DIR, loadJobConfig } from './load-job-config.js';
export { DEFAULT_MERCHANT_NAME } from './merchant-sources.js';
export type { ProxySetting } from './proxy-setting.js';
export { RECON_BOUNDS, RECON_VARIABLES } from './recon-config.js';
export { SYNC_BOUNDS } from './sync-settings.js';
