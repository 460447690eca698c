/**
 * @understudy-world ./broken.world.yaml
 */
import { it } from '@jest/globals';

it('never runs: the world file is refused before the first test', () => {});
