/** A buildx node name from a builder id (buildx allows letters, digits, '-', '_' and '.'). */
export function nodeName(builderId: string, index: number): string {
  const cleaned = builderId.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return cleaned !== '' ? cleaned : `node-${index}`;
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
