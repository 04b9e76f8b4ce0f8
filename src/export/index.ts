// `accord export`: the live account as an accord.yaml whose entries adopt what is there (DESIGN §2).
export {
  buildExport,
  type ExportFile,
  type ExportOptions,
  type ExportResult,
  type ExportSummary,
  SCHEMA_COMMENT,
} from './document.js';
export { assignKeys, idTail, KEY_PATTERN, slugify } from './keys.js';
export { ExportError, type LiveAccount, parseEdgeIds, readAccount } from './read.js';
export { filesNote, writeExport, writeSplitExport } from './write.js';
