import { errors, placeholderPattern } from '../sdk/index.ts';

const PLACEHOLDER = placeholderPattern('y');

/**
 * Turns a command template into an `sh -c` script plus positional arguments. Each `{{name}}` becomes a
 * quoted expansion of a positional parameter, so a value reaches the command as data the shell never
 * parses (`; rm -rf /`, `$(…)`, backticks and newlines stay literal text). The quoting follows the
 * template's own quoting at that spot, so the value is also never split or globbed:
 * unquoted → `"${n}"`, inside "…" → `${n}`, inside '…' → `'"${n}"'`. Missing values are empty.
 */
export function toShellScript(template: string, params: Record<string, string> = {}): { script: string; args: string[] } {
  const args: string[] = [];
  const positions = new Map<string, number>();
  let script = '';
  let quote: 'none' | 'single' | 'double' = 'none';
  for (let i = 0; i < template.length;) {
    PLACEHOLDER.lastIndex = i;
    const match = PLACEHOLDER.exec(template);
    if (match) {
      const name = match[1]!;
      let position = positions.get(name);
      if (position === undefined) {
        const value = params[name] ?? '';
        if (value.includes('\0')) throw errors.badRequest(`Parameter "${name}" contains a NUL byte`);
        args.push(value);
        positions.set(name, (position = args.length));
      }
      script += quote === 'none' ? `"\${${position}}"` : quote === 'double' ? `\${${position}}` : `'"\${${position}}"'`;
      i += match[0].length;
      continue;
    }
    const char = template[i]!;
    if (char === '\\' && quote !== 'single') {
      script += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (char === "'" && quote !== 'double') quote = quote === 'single' ? 'none' : 'single';
    else if (char === '"' && quote !== 'single') quote = quote === 'double' ? 'none' : 'double';
    script += char;
    i++;
  }
  return { script, args };
}
