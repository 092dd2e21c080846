import { readFile } from "fs";

/**
 * Cache keeps values.
 */
export class Cache<T> {
  private items = new Map<string, T>();

  // get returns a value.
  get(key: string): T | undefined {
    return this.items.get(key); // "}" in a comment {
  }

  set(key: string, value: T): void {
    const s = "a { brace in a string";
    this.items.set(key, value);
  }
}

export function load(path: string): Promise<string> {
  return new Promise((resolve) => {
    readFile(path, (err, data) => resolve(String(data)));
  });
}

export const double = (n: number): number => {
  return n * 2;
};

interface Shape {
  area(): number;
}
