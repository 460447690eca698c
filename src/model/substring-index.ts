/**
 * Finds, in one pass over a text, every registered literal that occurs in it.
 * Aho–Corasick over UTF-16 code units, so "occurs" means exactly `text.includes(literal)`
 * (the grapheme-aware libraries answer a different question). This is what keeps
 * fixture selection flat from 10 to 10,000 fixtures.
 */
export class SubstringIndex<T> {
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  private readonly out: T[][] = [[]];
  /** Node reached through fail links that has output, or -1. */
  private readonly dictLink: number[] = [-1];
  private built = true;
  private emptyValues: T[] = [];

  add(literal: string, value: T): void {
    if (literal.length === 0) {
      this.emptyValues.push(value);
      return;
    }
    let node = 0;
    for (let i = 0; i < literal.length; i++) {
      const c = literal.charCodeAt(i);
      let child = this.next[node].get(c);
      if (child === undefined) {
        child = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.out.push([]);
        this.dictLink.push(-1);
        this.next[node].set(c, child);
      }
      node = child;
    }
    this.out[node].push(value);
    this.built = false;
  }

  private build(): void {
    const queue: number[] = [];
    for (const child of this.next[0].values()) {
      this.fail[child] = 0;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head];
      for (const [c, child] of this.next[node]) {
        let f = this.fail[node];
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f];
        const target = this.next[f].get(c);
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        const fc = this.fail[child];
        this.dictLink[child] = this.out[fc].length > 0 ? fc : this.dictLink[fc];
        queue.push(child);
      }
    }
    this.built = true;
  }

  /** Calls `visit` once per (occurrence-free) value whose literal occurs in `text`. */
  search(text: string, visit: (value: T) => void): void {
    if (!this.built) this.build();
    for (const v of this.emptyValues) visit(v);
    const seen = new Set<number>();
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      while (node !== 0 && !this.next[node].has(c)) node = this.fail[node];
      node = this.next[node].get(c) ?? 0;
      for (let n = this.out[node].length > 0 ? node : this.dictLink[node]; n > 0; n = this.dictLink[n]) {
        if (seen.has(n)) break; // the rest of this chain was walked when n was first reached
        seen.add(n);
        for (const v of this.out[n]) visit(v);
      }
    }
  }
}
