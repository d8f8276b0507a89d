/** An action the model chose, with string parameters. */
export interface ActionChoice { name: string; params: Record<string, string> }

/**
 * The convention real models follow (stated in the system prompt): a line of its own
 * `ACTION: NAME {"param": "value"}`, upper-case keyword, JSON object optional.
 */
const ACTION_LINE = /^\s*ACTION:\s*([A-Za-z][A-Za-z0-9_]*)\s*(\{.*\})?\s*$/;
const KEYWORD = 'ACTION:';

export function parseActionLine(line: string): ActionChoice | undefined {
  const match = ACTION_LINE.exec(line);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  if (match[2]) {
    try {
      const parsed: unknown = JSON.parse(match[2]);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) params[key] = typeof value === 'string' ? value : JSON.stringify(value);
      }
    } catch { /* an unparsable object still names the action; missing parameters are reported when it runs */ }
  }
  return { name: match[1]!.toUpperCase(), params };
}

/** A partial line that could still turn into an action line once more text arrives. */
function mayBecomeActionLine(partial: string): boolean {
  const text = partial.trimStart();
  return text.length < KEYWORD.length ? KEYWORD.startsWith(text) : text.startsWith(KEYWORD);
}

/**
 * Passes streamed text through while taking action lines out of it: complete lines go out at once,
 * and only a partial line that may still become `ACTION: …` is held back until it is decided.
 */
export class ActionLineFilter {
  readonly actions: ActionChoice[] = [];
  private pending = '';

  push(text: string): string {
    this.pending += text;
    let out = '';
    for (let newline = this.pending.indexOf('\n'); newline !== -1; newline = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      const action = parseActionLine(line);
      if (action) this.actions.push(action);
      else out += `${line}\n`;
    }
    if (!mayBecomeActionLine(this.pending)) {
      out += this.pending;
      this.pending = '';
    }
    return out;
  }

  /** The held-back rest at the end of the stream (empty when it was an action line). */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    const action = parseActionLine(rest);
    if (action) this.actions.push(action);
    return action ? '' : rest;
  }
}
