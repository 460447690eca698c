/** What tells Gemini model families apart where their wire differs. */

/** Gemini 3 models think before every function call and check the signatures on the way back. */
export function isGemini3(model: string): boolean {
  return /^(?:models\/)?gemini-3(?:[.-]|$)/.test(model);
}
