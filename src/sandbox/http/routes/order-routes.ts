import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  CardAmountOrderRequest,
  CardOrderRequest,
  IssueCardRequest,
  OrderKind,
  RouteContract,
} from '../../../contract/index.js';
import { ROUTES } from '../../../contract/index.js';
import { placeOrder } from '../../orders/order-desk.js';
import type { OrderRequest } from '../../orders/order-request.js';
import type { SandboxContext } from '../../sandbox-context.js';
import { merchantOf } from '../authentication.js';
import { describeOperation } from '../operation-schema.js';
import { requestAmount } from '../request-values.js';

type OrderBody = Partial<IssueCardRequest & CardOrderRequest & CardAmountOrderRequest> & {
  merchantOrderNo: string;
};

const ORDER_OPERATIONS: readonly { route: RouteContract; kind: OrderKind }[] = [
  { route: ROUTES.issueCard, kind: 'ISSUE' },
  { route: ROUTES.freezeCard, kind: 'FREEZE' },
  { route: ROUTES.unfreezeCard, kind: 'UNFREEZE' },
  { route: ROUTES.cancelCard, kind: 'CANCEL' },
  { route: ROUTES.withdraw, kind: 'WITHDRAW' },
  { route: ROUTES.deposit, kind: 'DEPOSIT' },
];

/** The six order operations (every POST): validate, take the order, answer 201. */
export function registerOrderRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  for (const { route, kind } of ORDER_OPERATIONS) {
    app.post(
      route.path,
      { schema: { ...describeOperation(route), body: route.body } },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const merchant = merchantOf(request, ctx.store);
        const body = request.body as OrderBody;
        const order: OrderRequest = {
          kind,
          merchantOrderNo: body.merchantOrderNo,
          cardId: body.cardId,
          offeringId: body.offeringId,
          holderId: body.holderId,
          amountMinor:
            body.amount === undefined
              ? undefined
              : requestAmount('amount', body.amount, merchant.currency, kind === 'ISSUE'),
        };
        const answer = placeOrder(ctx, merchant.merchantId, order);
        if (answer.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send({ data: answer.reference });
      },
    );
  }
}
