// One TypedDict declaration: class syntax when every key is an identifier, the
// functional syntax (`TypedDict("Name", {"x-y": int})`) when one is not.
import { commentText } from './python-doc.ts';
import { isPlainIdentifier } from './python-names.ts';

/** One key of a TypedDict. */
export interface TypedDictField {
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  /** Description and constraints, one line ('' when none). */
  readonly note: string;
}

const fieldType = (field: TypedDictField): string => (field.required ? field.type : `NotRequired[${field.type}]`);

export function pythonTypedDict(name: string, fields: readonly TypedDictField[]): string {
  if (fields.every((field) => isPlainIdentifier(field.key))) {
    const lines = fields.map((field) => {
      const note = field.note === '' ? '' : `  # ${commentText(field.note)}`;
      return `    ${field.key}: ${fieldType(field)}${note}`;
    });
    return `class ${name}(TypedDict):\n${lines.join('\n')}`;
  }
  const notes = fields.filter((f) => f.note !== '').map((f) => `# ${JSON.stringify(f.key)}: ${commentText(f.note)}`);
  const entries = fields.map((field) => `    ${JSON.stringify(field.key)}: ${fieldType(field)},`);
  return [...notes, `${name} = TypedDict(${JSON.stringify(name)}, {`, ...entries, '})'].join('\n');
}
