import { placeholderPattern } from '../../sdk/index.ts';

const PLACEHOLDER = placeholderPattern('g');

/** Replaces `{{name}}` with `encode(value)`; a missing value is empty. */
export function fillPlaceholders(template: string, params: Record<string, string>, encode: (value: string) => string = (v) => v): string {
  return template.replace(PLACEHOLDER, (_, name: string) => encode(params[name] ?? ''));
}
