/** The model's side of the exchanges the support agent's tests replay. */
import { script } from 'jest-understudy';

export const REFUND_REQUEST = 'Please refund order A-1001, the backpack arrived torn.';

// The model's side of a good refund: look up, refund, email, answer.
export const refundFlow = script()
  .user(REFUND_REQUEST)
  .callsTool('lookup_order', { orderId: 'A-1001' })
  .callsTool('issue_refund', { orderId: 'A-1001', amount: 8900, reason: 'arrived damaged' })
  .callsTool('send_email', {
    to: 'sam@example.com',
    subject: 'Your refund for order A-1001',
    body: 'We refunded $89.00 for your Trail backpack.',
  })
  .replies('Order A-1001 is refunded ($89.00) and a confirmation email is on its way.');
