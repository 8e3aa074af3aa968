/**
 * Schemas for typed collections, through the Standard Schema interface (standardschema.dev),
 * which zod (3.24+ and 4), valibot and arktype implement: the client needs no schema library
 * itself and stays small in browsers.
 */

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

/** Validates; answers the parsed value or a one-line description of the issues. */
export async function validate<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
): Promise<{ ok: true; value: T } | { ok: false; problem: string; issues: readonly SchemaIssue[] }> {
  const result = await schema['~standard'].validate(value);
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
