import { isRedirectStatus, UpstreamError } from '../api/index.js';
import type { MerchantSource } from '../config/index.js';
import { OrderDeskError } from '../journal/order-desk-error.js';
import { EXIT, ExitError } from './exit-codes.js';
import { isMirrorBusy, mirrorBusyExit } from './mirror-busy.js';
import { refusedKeyMessage } from './refused-key.js';

/**
 * The exit a card, balance or orders command ends with for `error`: the upstream's 401, or the
 * proxy's 407 → 3;
 * its refusal (INSUFFICIENT_BALANCE, CARD_NOT_FOUND, ...) → 7: not 1, nothing internal failed,
 * nor 2, the command line was right and the refusal is journaled; unavailable after retries,
 * interrupted, or answering with a redirect → 4 (what was journaled stays, a re-run settles it);
 * an order the desk refused before sending → 2; a mirror held by another writer past
 * busy_timeout → 5. Anything else is returned as is (an internal error).
 */
export function commandExit(error: unknown, what: string, merchant: MerchantSource): unknown {
  if (error instanceof ExitError) return error;
  if (error instanceof UpstreamError) {
    switch (error.code) {
      case 'UPSTREAM_UNAUTHORIZED':
      case 'UPSTREAM_PROXY_REFUSED':
        return new ExitError(EXIT.UNAUTHORIZED, refusedKeyMessage(merchant, error), {
          cause: error,
        });
      case 'UPSTREAM_REJECTED':
        // A redirect refuses nothing: the client did not follow it, and an order so answered
        // stays SUBMITTED, like one the upstream was unavailable for.
        return new ExitError(
          isRedirectStatus(error.status) ? EXIT.SYNC_INCOMPLETE : EXIT.REJECTED,
          `${what}: ${error.message}`,
          { cause: error },
        );
      case 'UPSTREAM_ABORTED':
        return new ExitError(EXIT.SYNC_INCOMPLETE, `${what}: interrupted`, { cause: error });
      default:
        return new ExitError(
          EXIT.SYNC_INCOMPLETE,
          `${what}: upstream unavailable: ${error.message}`,
          {
            cause: error,
          },
        );
    }
  }
  if (error instanceof OrderDeskError) {
    if (error.code === 'JOURNAL_WRITE_FAILED')
      return new ExitError(isMirrorBusy(error.cause) ? EXIT.LOCKED : EXIT.INTERNAL, error.message, {
        cause: error,
      });
    return new ExitError(EXIT.USAGE, error.message, { cause: error });
  }
  if (isMirrorBusy(error)) return mirrorBusyExit(error);
  return error;
}
