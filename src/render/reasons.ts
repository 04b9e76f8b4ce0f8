// A change's reasons in English: the only place the planner's reason codes (src/plan/types.ts) become
// sentences. The plan's `reasons` are these sentences of its `reason_codes`, in order.

import type { Reason } from '../plan/types.js';
import { fileName } from './names.js';
import { problemText } from './problems.js';

const fields = (names: readonly string[]) => names.map(fileName).join(', ');

/** One reason as a person reads it. */
export function reasonText(r: Reason): string {
  switch (r.code) {
    case 'missing':
      return 'not in the account yet';
    case 'adopt_unmanaged':
      return `adopts unmanaged ${r.id} named by id:`;
    case 'takeover':
      return `takes ${r.id} over from owner "${r.owner}" (--allow-takeover)`;
    case 'adopt_nested':
      return `adopts ${r.id}: ${r.parent} lists every one it holds`;
    case 'renamed':
      return `renamed from ${r.from}`;
    case 'swapped':
      return `${r.fields.map((f) => `${fileName(f)}s`).join(' and ')} swapped with ${r.with}`;
    case 'immutable':
      return r.part !== undefined
        ? `the ${r.part} of its ${fileName(r.field)} cannot change in place`
        : `${fileName(r.field)} cannot be updated`;
    case 'renewal':
      return r.expired
        ? `expired ${r.days} days ago (renew_before)`
        : `expires in ${r.days} days (renew_before)`;
    case 'changed':
      return `${fileName(r.field)} changed`;
    case 'agreed':
      return `${fileName(r.field)} changed outside accord to the file's value`;
    case 'marker_broken':
      return `marker broken: ${r.id} names this key in metadata that is no longer an accord marker (edited outside accord); it is left alone as unmanaged. Fix its metadata, or adopt it with id: ${r.id} (then remove the duplicate)`;
    case 'duplicate':
      return `duplicate of ${r.kept} (key ${r.key}; ${r.oldest ? 'the oldest' : 'the one that agrees with the file'} is kept)`;
    case 'slot_left':
      return `its ${r.slot} is no longer in the file (key ${r.key} is now ${r.kept})`;
    case 'not_in_file':
      return 'not in the file';
    case 'duplicate_key':
      return 'not in the file (duplicate key)';
    case 'added_outside':
      return r.copy_of === undefined
        ? 'not in the file: added outside accord (it carries no marker of this owner)'
        : `not in the file: added outside accord (its marker is a copy of ${r.copy_of}'s)`;
    case 'slot_held':
      return `slot held: ${problemText(r.problem)}`;
    case 'absent':
      return 'set to "absent"';
    case 'not_configured':
      return 'not configured';
    case 'flip_delete':
      return `${fields(r.fields)} cannot be updated: deleted, then created again as ${r.address}`;
    case 'flip_create':
      return `${fields(r.fields)} cannot be updated: replaces ${r.id}, which is deleted first`;
    case 'union':
      return 'first passes through the union of its old and new policies, so that no address both let through is shut out';
  }
}
