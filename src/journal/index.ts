export { type CardOrder, describeCardOrder, type OrderBody } from './card-order.js';
export {
  type ImportIssue,
  type ImportIssueCode,
  JOURNAL_COLUMNS,
  type JournalColumn,
} from './import-issue.js';
export type { JournalEntry } from './journal-entry.js';
export { isMerchantOrderNo, newMerchantOrderNo } from './merchant-order-no.js';
export { checkOrderAmount, type OrderAmountCheck } from './order-amount.js';
export {
  type OrderApi,
  OrderDesk,
  type OrderDeskOptions,
  type OrderOutcome,
  type SubmitOptions,
} from './order-desk.js';
export { OrderDeskError, type OrderDeskErrorCode } from './order-desk-error.js';
export {
  type ImportBytesOptions,
  type ImportOptions,
  type ImportResult,
  importOrderBytes,
  importOrderFile,
} from './order-import.js';
export { OrderImportError, type OrderImportErrorCode } from './order-import-error.js';
export { type JournaledOrder, OrderJournal } from './order-journal.js';
