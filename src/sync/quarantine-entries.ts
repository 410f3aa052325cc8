import type { MalformedRecordError } from '../api/index.js';
import { stringifyExactly } from '../contract/exact-json.js';
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
    // As text: the writer thread gets a copy, and a copied LosslessNumber is a plain object.
    sentJson: error.sent === error.raw ? undefined : stringifyExactly(error.sent),
  }));
}
