/** @understudy-world ./shared.world.yaml */
import { scenarios } from './scenarios.mjs';

scenarios('B', 'A');
