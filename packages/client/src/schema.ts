/**
 * Schemas for typed collections, through the Standard Schema interface (standardschema.dev),
 * which zod (3.24+ and 4), valibot and arktype implement: the client needs no schema library
 * itself and stays small in browsers.
 */
import { TesseraError } from './errors.js';

export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> };

/** The part of Standard Schema v1 the client uses. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** The type of the values a schema accepts and produces. */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];

export type Checked<T> =
  | { ok: true; value: T }
  | { ok: false; problem: string; issues: readonly SchemaIssue[] };

/** Validates; answers the parsed value or a one-line description of the issues. */
export async function validate<T>(schema: StandardSchemaV1<unknown, T>, value: unknown): Promise<Checked<T>> {
  return outcome(await schema['~standard'].validate(value));
}

/**
 * The schema's output (defaults applied) for a value given for `key`, else VALIDATION_FAILED
 * naming the key and the schema's `owner` (`collection "cart"`).
 */
export async function checkIn<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
  key: string,
  owner: string,
): Promise<T> {
  return accepted(await validate(schema, value), key, owner);
}

/** `checkIn` without waiting: a schema that validates asynchronously is INVALID_ARGUMENT. */
export function checkInNow<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
  key: string,
  owner: string,
): T {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => undefined);
    throw new TesseraError(
      'INVALID_ARGUMENT',
      `The schema of ${owner} validates asynchronously, so the value for key "${key}" cannot be checked here: validate it first, or use a schema without async checks.`,
      { key },
    );
  }
  return accepted(outcome(result), key, owner);
}

/**
 * The schema's output for a value stored under `key`, else INVALID_STORED_VALUE naming the key
 * (and which of the key's siblings, when it has several).
 */
export async function checkStored<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
  key: string,
  owner: string,
  sibling?: { readonly index: number; readonly count: number },
): Promise<T> {
  const checked = await validate(schema, value);
  if (checked.ok) return checked.value;
  const which = sibling === undefined ? '' : ` (sibling ${sibling.index + 1} of ${sibling.count})`;
  throw new TesseraError(
    'INVALID_STORED_VALUE',
    `Key "${key}" holds a value that does not match the schema of ${owner}${which}: ${checked.problem}`,
    {
      key,
      details:
        sibling === undefined
          ? { issues: checked.issues }
          : { sibling: sibling.index, issues: checked.issues },
    },
  );
}

function accepted<T>(checked: Checked<T>, key: string, owner: string): T {
  if (checked.ok) return checked.value;
  throw new TesseraError(
    'VALIDATION_FAILED',
    `The value for key "${key}" does not match the schema of ${owner}: ${checked.problem}`,
    { key, details: { issues: checked.issues } },
  );
}

function outcome<T>(result: SchemaResult<T>): Checked<T> {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, problem: describeIssues(result.issues), issues: result.issues };
}

export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p) => String(typeof p === 'object' && p !== null ? p.key : p))
        .join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
