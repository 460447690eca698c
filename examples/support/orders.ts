/**
 * The model's side of a refund at the order desk (python-agent/orders.world.yaml), shared by the
 * examples whose agents live in another process: look up, refund, email, answer.
 */
import { script } from 'jest-understudy';

export const REFUND_QUESTION = 'Please refund order A-1001, the shoes came apart.';

export const REFUND_EMAIL = 'Your refund of $89 is on its way.';

export function refundFlow(answer: string) {
  return script()
    .user(REFUND_QUESTION)
    .callsTool('get_order', { id: 'A-1001' })
    .callsTool('refund_order', { id: 'A-1001', amount: 89 })
    .callsTool('send_email', { orderId: 'A-1001', text: REFUND_EMAIL })
    .replies(answer);
}
