export { ApiClient, type ApiClientOptions, ApiKeyError, PAGE_SIZE } from './client.js';
export { type Clock, systemClock } from './clock.js';
export {
  ApiConnectionError,
  ApiError,
  ClientClosedError,
  DeadlineError,
  isOutcomeUnknown,
  OutcomeUnknownError,
  PaginationError,
} from './errors.js';
export { Pacer, type RateLimit } from './pacer.js';
export { ApiStats, type ApiStatsSnapshot } from './stats.js';
