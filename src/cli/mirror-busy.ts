import { isMirrorBusy } from '../mirror/mirror-busy.js';
import { EXIT, ExitError } from './exit-codes.js';

export { isMirrorBusy };

/** Exit 5, for every command, when {@link isMirrorBusy}: nothing is wrong but the timing. */
export function mirrorBusyExit(error: unknown): ExitError {
  return new ExitError(
    EXIT.LOCKED,
    'the mirror is busy: another writer held it longer than its busy timeout; try again',
    { cause: error },
  );
}
