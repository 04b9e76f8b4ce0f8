// The plan's field names as the file writes them. The plan's data keeps its own stable names (the JSON
// plan, `changed_fields`, `drift` and the fingerprint's field order use them); what people read (the
// reasons, the text and Markdown plans, drift reports) says the file's.

const FILE_NAMES: Readonly<Record<string, string>> = {
  protect: 'lifecycle.prevent_destroy',
  valid_for_seconds: 'valid_for',
};

/** A plan field's name as the file writes it (`protect` -> `lifecycle.prevent_destroy`). */
export function fileName(field: string): string {
  return FILE_NAMES[field] ?? field;
}
