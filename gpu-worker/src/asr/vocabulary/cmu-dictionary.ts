import { readFile } from "node:fs/promises";
import { fromCmu } from "./arpabet.ts";

/** A pronouncing dictionary: word (lower case) → its pronunciations in ARPAbet. */
export type PronouncingDictionary = ReadonlyMap<string, string[][]>;

const loaded = new Map<string, Promise<PronouncingDictionary>>();

/** pocketsphinx's dictionary (`word phones`, variants as `word(2) phones`), read once per path and kept. */
export function loadPronouncingDictionary(path: string): Promise<PronouncingDictionary> {
  let dictionary = loaded.get(path);
  if (!dictionary) {
    dictionary = readFile(path, "utf8").then(parseDictionary);
    loaded.set(path, dictionary);
    dictionary.catch(() => loaded.delete(path));
  }
  return dictionary;
}

export function parseDictionary(text: string): PronouncingDictionary {
  const words = new Map<string, string[][]>();
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const word = line.slice(0, space).replace(/\(\d+\)$/u, "");
    const variants = words.get(word) ?? [];
    variants.push(fromCmu(line.slice(space + 1)));
    words.set(word, variants);
  }
  return words;
}
