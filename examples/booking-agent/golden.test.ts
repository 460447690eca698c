/**
 * The booking agent's golden tasks (booking.golden.yaml): each task is one Jest test that
 * replays its fixtures, runs the agent, and checks the negative cases, then the trajectory,
 * the answer and the terminal state.
 *
 * @understudy-world ./calendar.world.yaml
 */
import { describeGoldenTasks } from 'jest-understudy';
import { runBookingAgent } from './agent';

describeGoldenTasks('booking.golden.yaml', { agent: (input: string) => runBookingAgent(input) });
