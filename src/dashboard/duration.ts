/** A span of time as the pages say it: the two largest units, "2 d 3 h", "2 h 40 min", "5 min", "40 s". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const units: [number, string][] = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ];
  const first = units.findIndex(([value]) => value > 0);
  if (first === -1) return '0 s';
  return units
    .slice(first, first + 2)
    .filter(([value]) => value > 0)
    .map(([value, unit]) => `${value} ${unit}`)
    .join(' ');
}
