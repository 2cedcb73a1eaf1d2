/**
 * What an import could not carry over faithfully, kept on the trial (and in import.json) so a
 * reader can tell a recorded value from a derived one and knows what is missing.
 */
const NOTE_KINDS = [
  /** The predecessor did not record it: the field is null (or marked) in the imported record. */
  "not_recorded",
  /** The predecessor recorded it but fieldtest's format has no place for it: dropped. */
  "not_convertible",
  /** Filled in by a documented rule from other recorded values, not read directly. */
  "derived",
  /** Two recorded values disagree; what was kept is said. */
  "inconsistent",
] as const;
type NoteKind = (typeof NOTE_KINDS)[number];

export interface ConversionNote {
  kind: NoteKind;
  /** Where it applies: a field or a path in the predecessor's artefact. */
  subject: string;
  detail: string;
}

export const note = (kind: NoteKind, subject: string, detail: string): ConversionNote => ({ kind, subject, detail });
