/**
 * A count with its noun in the right number: `count(1, 'change')` is "1 change", `count(2, 'change')`
 * "2 changes". Nouns whose plural is not the singular plus "s" give it: `count(n, 'entry', 'entries')`.
 */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The verb that agrees with a count: `${count(n, 'change')} ${are(n)} not shown`. */
export function are(n: number): 'is' | 'are' {
  return n === 1 ? 'is' : 'are';
}
