// The library surface: what `import ... from 'accordctl'` gives. The CLI is built from the same parts.
export { ApiClient, type ApiClientOptions, ApiError } from './api/index.js';
export { main } from './cli/main.js';
export { plan } from './cli/worded-plan.js';
export { ConfigError, type DesiredState, loadDesiredState } from './config/index.js';
export { AccordError } from './errors.js';
export type { Plan, PlanChange } from './plan/types.js';
export { type RunningServer, type ServerOptions, startServer } from './server/index.js';
