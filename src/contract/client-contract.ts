// Generated from ROUTES (routes.ts) by `npm run client-contract`: do not edit by hand.
// The API client reads the contract from here, so a run does not load typebox.
import type { ClientContract } from './client-contract-shape.js';

export const CLIENT_CONTRACT: ClientContract = {
  pagination: {
    type: 'object',
    required: ['total', 'page', 'limit', 'totalPages'],
    properties: {
      total: {
        type: 'integer',
        minimum: 0,
      },
      page: {
        type: 'integer',
        minimum: 1,
      },
      limit: {
        type: 'integer',
        minimum: 1,
      },
      totalPages: {
        type: 'integer',
        minimum: 0,
      },
    },
    title: 'Pagination',
  },
  records: {
    Card: {
      type: 'object',
      required: [
        'cardId',
        'merchantId',
        'cardOfferingId',
        'lastFour',
        'status',
        'balance',
        'currency',
        'createdAt',
      ],
      properties: {
        cardId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        merchantId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        cardOfferingId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        lastFour: {
          type: 'string',
          pattern: '^\\d{4}$',
        },
        status: {
          enum: [
            'PENDING',
            'ACTIVE',
            'FREEZING',
            'FROZEN',
            'UNFREEZING',
            'CANCELLING',
            'CANCELLED',
            'FAILED',
            'BLOCKED',
          ],
        },
        balance: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        currency: {
          type: 'string',
          pattern: '^[A-Z]{3}$',
          examples: ['USD'],
        },
        createdAt: {
          type: 'string',
          pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]00:?00)$',
          description: 'ISO 8601 UTC timestamp, e.g. 2026-11-21T02:00:00.000Z',
          examples: ['2026-11-21T02:00:00.000Z'],
        },
      },
      title: 'Card',
    },
    OrderReference: {
      type: 'object',
      required: ['orderNo', 'merchantOrderNo'],
      properties: {
        orderNo: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        merchantOrderNo: {
          type: 'string',
        },
      },
      title: 'OrderReference',
    },
    SensitiveCardInfo: {
      type: 'object',
      required: ['cardNumber', 'cvv', 'expiryMonth', 'expiryYear'],
      properties: {
        cardNumber: {
          type: 'string',
          pattern: '^\\d{12,19}$',
        },
        cvv: {
          type: 'string',
          pattern: '^\\d{3,4}$',
        },
        expiryMonth: {
          type: 'string',
          pattern: '^(0?[1-9]|1[0-2])$',
        },
        expiryYear: {
          type: 'string',
          pattern: '^(\\d{2}|\\d{4})$',
        },
      },
      title: 'SensitiveCardInfo',
    },
    Transaction: {
      type: 'object',
      required: [
        'transactionId',
        'cardId',
        'tradeNo',
        'type',
        'status',
        'amount',
        'currency',
        'merchantName',
        'fee',
        'createdAt',
      ],
      properties: {
        transactionId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        cardId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        tradeNo: {
          type: 'string',
        },
        type: {
          enum: ['PURCHASE', 'REFUND', 'REVERSAL', 'VERIFICATION', 'FEE'],
        },
        status: {
          enum: ['PENDING', 'COMPLETED', 'DECLINED', 'SETTLED'],
        },
        amount: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        currency: {
          type: 'string',
          pattern: '^[A-Z]{3}$',
          examples: ['USD'],
        },
        merchantName: {
          type: 'string',
        },
        fee: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        createdAt: {
          type: 'string',
          pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]00:?00)$',
          description: 'ISO 8601 UTC timestamp, e.g. 2026-11-21T02:00:00.000Z',
          examples: ['2026-11-21T02:00:00.000Z'],
        },
      },
      title: 'Transaction',
    },
    MerchantBalance: {
      type: 'object',
      required: ['balance', 'currency'],
      properties: {
        balance: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        currency: {
          type: 'string',
          pattern: '^[A-Z]{3}$',
          examples: ['USD'],
        },
      },
      title: 'MerchantBalance',
    },
    Offering: {
      type: 'object',
      required: [
        'id',
        'name',
        'network',
        'type',
        'currency',
        'minLoadAmount',
        'maxLoadAmount',
        'issuanceFee',
        'depositFeePercent',
        'requiresHolder',
      ],
      properties: {
        id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
        },
        name: {
          type: 'string',
        },
        network: {
          type: 'string',
        },
        type: {
          type: 'string',
        },
        currency: {
          type: 'string',
          pattern: '^[A-Z]{3}$',
          examples: ['USD'],
        },
        minLoadAmount: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        maxLoadAmount: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        issuanceFee: {
          type: 'string',
          pattern: '^-?\\d+(\\.\\d+)?$',
          description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
          examples: ['10.00'],
        },
        depositFeePercent: {
          type: 'string',
          pattern: '^\\d+(\\.\\d+)?$',
          examples: ['1.5'],
        },
        requiresHolder: {
          type: 'boolean',
        },
      },
      title: 'Offering',
    },
  },
  operations: {
    listCards: {
      method: 'GET',
      path: '/cards',
      shape: 'page',
      record: 'Card',
    },
    issueCard: {
      method: 'POST',
      path: '/cards',
      shape: 'single',
      record: 'OrderReference',
    },
    getSensitiveCard: {
      method: 'GET',
      path: '/cards/sensitive',
      shape: 'single',
      record: 'SensitiveCardInfo',
    },
    getCard: {
      method: 'GET',
      path: '/cards/info',
      shape: 'single',
      record: 'Card',
    },
    freezeCard: {
      method: 'POST',
      path: '/cards/freeze',
      shape: 'single',
      record: 'OrderReference',
    },
    unfreezeCard: {
      method: 'POST',
      path: '/cards/unfreeze',
      shape: 'single',
      record: 'OrderReference',
    },
    cancelCard: {
      method: 'POST',
      path: '/cards/cancel',
      shape: 'single',
      record: 'OrderReference',
    },
    withdraw: {
      method: 'POST',
      path: '/cards/withdraw',
      shape: 'single',
      record: 'OrderReference',
    },
    deposit: {
      method: 'POST',
      path: '/cards/deposit',
      shape: 'single',
      record: 'OrderReference',
    },
    listTransactions: {
      method: 'GET',
      path: '/transactions',
      shape: 'page',
      record: 'Transaction',
    },
    getMerchantBalance: {
      method: 'GET',
      path: '/merchants/balance',
      shape: 'single',
      record: 'MerchantBalance',
    },
    listOfferings: {
      method: 'GET',
      path: '/merchants/offerings',
      shape: 'list',
      record: 'Offering',
    },
  },
};
