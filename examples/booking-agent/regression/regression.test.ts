/**
 * Fails on purpose (its task breaks a forbidden order): the root Jest config leaves this
 * folder out, and ../timeline.test.ts runs it in a child Jest to read the failure and the
 * timeline it wrote.
 *
 * @understudy-world ../calendar.world.yaml
 */
import { describeGoldenTasks } from 'jest-understudy';
import { runBookingAgent } from '../agent';

describeGoldenTasks('regression.golden.yaml', { agent: (input: string) => runBookingAgent(input) });
