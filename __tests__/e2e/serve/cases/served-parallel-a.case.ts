/** One of the two files serving at once (see ./served-parallel.ts). */
import { servesAlongside } from './served-parallel';

servesAlongside('a', 'b');
