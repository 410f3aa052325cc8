import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ListTransactionsQuery } from '../../../contract/index.js';
import { ROUTES } from '../../../contract/index.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { merchantOf } from '../authentication.js';
import { describeOperation } from '../operation-schema.js';
import { pageWindow, presentPagination, presentTransaction } from '../presenters.js';
import { requestTimeRange } from '../request-values.js';

/** GET /transactions: newest first, filters combined, time range inclusive at both ends. */
export function registerTransactionRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  maxPageSize: (request: FastifyRequest) => number,
): void {
  app.get(
    ROUTES.listTransactions.path,
    {
      schema: {
        ...describeOperation(ROUTES.listTransactions),
        querystring: ROUTES.listTransactions.querystring,
      },
    },
    async (request) => {
      const query = request.query as ListTransactionsQuery;
      const merchant = merchantOf(request, ctx.store);
      const { startTime, endTime } = requestTimeRange(query.startTime, query.endTime);
      const window = pageWindow(query.page, query.limit, maxPageSize(request));
      const { rows, total } = ctx.store.transactions.page(
        merchant.merchantId,
        { cardId: query.cardId, type: query.type, status: query.status, startTime, endTime },
        window,
      );
      return {
        data: rows.map(presentTransaction),
        pagination: presentPagination(total, window.page, window.limit),
      };
    },
  );
}
