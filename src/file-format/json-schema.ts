/** The subset of JSON Schema (draft-07) the package's schemas use (fixtures, worlds, golden tasks, options). */
export interface JsonSchema {
  $schema?: string;
  $ref?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: readonly unknown[];
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  contains?: JsonSchema;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  anyOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  uniqueItems?: boolean;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  definitions?: Record<string, JsonSchema>;
}
