/**
 * The support desk's tools and the in-memory order store behind them. In production the
 * store would be a database client; the agent only sees the three tools below.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

export interface Order {
  id: string;
  customerEmail: string;
  item: string;
  /** What the customer paid, in cents. */
  amountPaid: number;
  status: 'paid' | 'refunded';
}

export interface Refund {
  refundId: string;
  orderId: string;
  amount: number;
  reason: string;
}

export interface Email {
  messageId: string;
  to: string;
  subject: string;
  body: string;
}

/** A tool refused the request; the agent reports the message back to the model. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export const DEMO_ORDERS: readonly Order[] = [
  {
    id: 'A-1001',
    customerEmail: 'sam@example.com',
    item: 'Trail backpack',
    amountPaid: 8900,
    status: 'paid',
  },
  { id: 'A-1002', customerEmail: 'kim@example.com', item: 'Rain jacket', amountPaid: 12900, status: 'paid' },
  {
    id: 'A-1003',
    customerEmail: 'lee@example.com',
    item: 'Camping stove',
    amountPaid: 4500,
    status: 'refunded',
  },
];

export class OrderStore {
  private readonly orders = new Map<string, Order>();
  readonly refunds: Refund[] = [];
  readonly sentEmails: Email[] = [];

  constructor(orders: readonly Order[] = DEMO_ORDERS) {
    for (const order of orders) this.orders.set(order.id, { ...order });
  }

  get(orderId: string): Order | undefined {
    const order = this.orders.get(orderId);
    return order && { ...order };
  }

  lookupOrder(orderId: string): Order {
    const order = this.get(orderId);
    if (!order) throw new ToolError(`order ${orderId} does not exist`);
    return order;
  }

  issueRefund(orderId: string, amount: number, reason: string): Refund {
    const order = this.orders.get(orderId);
    if (!order) throw new ToolError(`order ${orderId} does not exist`);
    if (order.status === 'refunded') throw new ToolError(`order ${orderId} was already refunded`);
    if (!Number.isInteger(amount) || amount <= 0)
      throw new ToolError('amount must be a positive number of cents');
    if (amount > order.amountPaid)
      throw new ToolError(`cannot refund ${amount} cents: the customer paid ${order.amountPaid}`);
    order.status = 'refunded';
    const refund = { refundId: `rf_${this.refunds.length + 1}`, orderId, amount, reason };
    this.refunds.push(refund);
    return { ...refund };
  }

  sendEmail(to: string, subject: string, body: string): Pick<Email, 'messageId'> {
    if (!to.includes('@')) throw new ToolError(`"${to}" is not an email address`);
    const messageId = `msg_${this.sentEmails.length + 1}`;
    this.sentEmails.push({ messageId, to, subject, body });
    return { messageId };
  }
}

/** The tools as the model sees them. */
export const TOOL_DEFINITIONS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Look up an order by id: item, amount paid (cents), status and customer email.',
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' } },
        required: ['orderId'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      description: 'Refund an order, fully or partly. Refuses orders already refunded.',
      parameters: {
        type: 'object',
        properties: {
          orderId: { type: 'string' },
          amount: { type: 'integer', description: 'Cents, at most the amount paid.' },
          reason: { type: 'string' },
        },
        required: ['orderId', 'amount', 'reason'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'send_email',
      description: 'Email the customer.',
      parameters: {
        type: 'object',
        properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
        required: ['to', 'subject', 'body'],
        additionalProperties: false,
      },
    },
  },
];

type Args = Record<string, unknown>;

const str = (args: Args, key: string): string => {
  const value = args[key];
  if (typeof value !== 'string') throw new ToolError(`"${key}" must be a string`);
  return value;
};

/** Runs one tool by name against the store. Throws ToolError when the tool refuses. */
export function executeTool(store: OrderStore, name: string, args: Args): unknown {
  switch (name) {
    case 'lookup_order':
      return store.lookupOrder(str(args, 'orderId'));
    case 'issue_refund':
      return store.issueRefund(str(args, 'orderId'), Number(args.amount), str(args, 'reason'));
    case 'send_email':
      return store.sendEmail(str(args, 'to'), str(args, 'subject'), str(args, 'body'));
    default:
      throw new ToolError(`unknown tool "${name}"`);
  }
}
