export { main } from './cli/main.js';
export { AccordError } from './errors.js';
