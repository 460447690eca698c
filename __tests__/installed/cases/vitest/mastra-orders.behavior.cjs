// The Mastra cases' order desk: a refund needs an order that exists and is not refunded yet.
exports.refund = (ctx) => {
  const order = ctx.state.orders[ctx.input.id];
  if (!order) ctx.fail('NOT_FOUND');
  if (order.status === 'refunded') ctx.fail('ALREADY_REFUNDED');
  order.status = 'refunded';
  return order;
};
