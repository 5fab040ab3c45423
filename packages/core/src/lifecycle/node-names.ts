/**
 * A buildx node name from a builder id. buildx accepts `^[a-zA-Z][a-zA-Z0-9._-]*$` and keeps the name
 * lower-cased (store.ValidateName, every version), and the spec does not show what ids look like: other
 * characters become '-', the name is lower-cased (so it matches what buildx prints), and one that does not
 * start with a letter (a UUID, a number) is given a "node-" prefix.
 */
export function nodeName(builderId: string, index: number): string {
  const cleaned = builderId
    .toLowerCase()
    .replace(/[^a-z0-9_.-]/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  if (cleaned === '') return `node-${index}`;
  return /^[a-z]/.test(cleaned) ? cleaned : `node-${cleaned}`;
}

/** Node names for builder ids, by index, distinct even when two ids clean up to the same name. */
export function uniqueNodeNames(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.map((id, i) => {
    let name = nodeName(id, i);
    for (let n = 2; seen.has(name); n++) name = `${nodeName(id, i)}-${n}`;
    seen.add(name);
    return name;
  });
}
