import type { MalformedRecordError } from '../api/index.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';

/** The quarantine rows for records the client refused. */
export function quarantineEntries(
  resource: QuarantinedRecord['resource'],
  rejected: readonly MalformedRecordError[],
): QuarantinedRecord[] {
  return rejected.map((error) => ({
    resource,
    recordId: error.recordId,
    reason: error.reason,
    raw: error.raw,
  }));
}
