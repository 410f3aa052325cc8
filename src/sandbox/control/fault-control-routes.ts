import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FaultConfigError } from '../faults/fault-config-error.js';
import type { FaultLab } from '../faults/fault-lab.js';
import { parseFaultRule, parseFaultRules } from '../faults/parse-fault-rules.js';
import { ApiError } from '../http/api-error.js';

const controlled = { config: { auth: 'control' as const }, schema: { hide: true } } as const;

/** Run `work`, answering a bad rule with a 400 that names the field. */
function checked<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof FaultConfigError)
      throw new ApiError('VALIDATION_FAILED', [...error.problems]);
    throw error;
  }
}

/**
 * The fault lab's part of the control surface: `GET /_control/faults` lists the rules with their
 * counters, `PUT` replaces them all (`{rules: [...]}`), `POST` adds one, `DELETE` empties the lab
 * so the service behaves exactly as without it.
 */
export function registerFaultControlRoutes(app: FastifyInstance, lab: FaultLab): void {
  const state = () => ({ active: lab.active, rules: lab.list() });

  app.get('/_control/faults', controlled, async () => state());

  app.put('/_control/faults', controlled, async (request: FastifyRequest) => {
    const body = request.body as { rules?: unknown } | undefined;
    const extra = Object.keys(body ?? {}).filter((key) => key !== 'rules');
    if (typeof body !== 'object' || body === null || Array.isArray(body) || extra.length > 0) {
      throw new ApiError('VALIDATION_FAILED', ['body must be {"rules": [...]}']);
    }
    checked(() => lab.replace(parseFaultRules(body.rules, 'rules')));
    return state();
  });

  app.post('/_control/faults', controlled, async (request: FastifyRequest, reply: FastifyReply) => {
    const rule = checked(() => lab.add(parseFaultRule(request.body, 'rule')));
    return reply.code(201).send({ rule });
  });

  app.delete('/_control/faults', controlled, async () => {
    lab.reset();
    return state();
  });
}
