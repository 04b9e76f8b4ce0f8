export type { LiveObject } from '../resources/values.js';
export {
  CertDirError,
  certificatesToWrite,
  prepareCertDir,
  staleCertificates,
  type WrittenCertificate,
  writeCertificates,
} from './certs.js';
export { CreateFailedError, createOnce, findByMarker } from './create.js';
export { applyPlan, DependencyError, summarize } from './executor.js';
export {
  checkPlanPaths,
  checkSameFiles,
  type FilesSource,
  PlanFileError,
  parsePlan,
  readPlanFile,
} from './planfile.js';
export {
  checkSavedHeader,
  judgeFreshPlan,
  type PlanHeader,
  planSavedAgain,
  type SavedPlanVerdict,
  StalePlanError,
  UnsafePlanError,
} from './stale.js';
export type {
  ApplyClient,
  ApplyOptions,
  ApplyResult,
  ApplySummary,
  ChangeResult,
  ChangeStatus,
} from './types.js';
