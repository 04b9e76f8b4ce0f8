// The desired model: what a validated accord.yaml normalizes to. The contract between src/config
// (which produces it) and src/plan (which consumes it). Values are normalized for comparison
// (DESIGN §3): sets sorted and deduplicated, timestamps as ISO instants, public keys canonical. Its
// shape derives from the resource registry (src/resources/index.ts); each kind's entry type is in its
// descriptor file.
export type {
  DesiredFile,
  DesiredManaged,
  DesiredModule,
  DesiredResource,
  DesiredState,
  SharedFields,
  SourceLocation,
} from '../resources/index.js';
