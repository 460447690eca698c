/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a - b;
}

/** Multiplies two numbers. */
export function multiply(a: number, b: number): number {
  return a * b;
}
