import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../../../contract/index.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { merchantOf } from '../authentication.js';
import { describeOperation } from '../operation-schema.js';
import { money, presentOffering } from '../presenters.js';

/** GET /merchants/balance and /merchants/offerings. */
export function registerMerchantRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get(
    ROUTES.getMerchantBalance.path,
    { schema: describeOperation(ROUTES.getMerchantBalance) },
    async (request) => {
      const merchant = merchantOf(request, ctx.store);
      return {
        data: {
          balance: money(merchant.balanceMinor, merchant.currency),
          currency: merchant.currency,
        },
      };
    },
  );

  app.get(
    ROUTES.listOfferings.path,
    { schema: describeOperation(ROUTES.listOfferings) },
    async (request) => {
      const merchant = merchantOf(request, ctx.store);
      return { data: ctx.store.offerings.list(merchant.merchantId).map(presentOffering) };
    },
  );
}
