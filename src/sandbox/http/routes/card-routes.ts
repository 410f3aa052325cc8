import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CardIdQuery, ListCardsQuery } from '../../../contract/index.js';
import { ROUTES } from '../../../contract/index.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { ApiError } from '../api-error.js';
import { merchantOf } from '../authentication.js';
import { describeOperation } from '../operation-schema.js';
import { pageWindow, presentCard, presentPagination } from '../presenters.js';

/** GET /cards, /cards/info and /cards/sensitive. */
export function registerCardRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  maxPageSize: (request: FastifyRequest) => number,
): void {
  const ownedCard = (merchantId: string, cardId: string) => {
    const card = ctx.store.cards.getOwned(merchantId, cardId);
    if (!card) throw new ApiError('CARD_NOT_FOUND', `card ${cardId} not found`);
    return card;
  };

  app.get(
    ROUTES.listCards.path,
    {
      schema: { ...describeOperation(ROUTES.listCards), querystring: ROUTES.listCards.querystring },
    },
    async (request) => {
      const query = request.query as ListCardsQuery;
      const merchant = merchantOf(request, ctx.store);
      const window = pageWindow(query.page, query.limit, maxPageSize(request));
      const { rows, total } = ctx.store.cards.page(merchant.merchantId, query.status, window);
      return {
        data: rows.map(presentCard),
        pagination: presentPagination(total, window.page, window.limit),
      };
    },
  );

  app.get(
    ROUTES.getCard.path,
    { schema: { ...describeOperation(ROUTES.getCard), querystring: ROUTES.getCard.querystring } },
    async (request) => {
      const { cardId } = request.query as CardIdQuery;
      return { data: presentCard(ownedCard(merchantOf(request, ctx.store).merchantId, cardId)) };
    },
  );

  app.get(
    ROUTES.getSensitiveCard.path,
    {
      schema: {
        ...describeOperation(ROUTES.getSensitiveCard),
        querystring: ROUTES.getSensitiveCard.querystring,
      },
    },
    async (request) => {
      const { cardId } = request.query as CardIdQuery;
      const card = ownedCard(merchantOf(request, ctx.store).merchantId, cardId);
      return {
        data: {
          cardNumber: card.cardNumber,
          cvv: card.cvv,
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
        },
      };
    },
  );
}
