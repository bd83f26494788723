// Helpers for the token stream layout documented in ./types: the student's and teacher's prefixes, and the
// positional token classes of a stream.
import { Special, TokenClass, type Task } from './types';

/** The student's stream before the first action: `<bos> prompt… <act>`. */
export function studentPrefix(task: Task): number[] {
  return [...task.promptTokens, Special.act];
}

/** The teacher's stream before the first action: `<skill> skill… <pad>… <bos> prompt… <act>`. */
export function teacherPrefix(task: Task): number[] {
  return [...task.skillTokens, ...task.promptTokens, Special.act];
}

/**
 * Classes of a student stream (or a teacher stream, whose leading skill segment is classed `skill`), derived from
 * positions: after <act> the first token is actionHead and the rest up to and including <eoa> actionArg; from <obs>
 * to before the next <act>/<eos> observation; <bos>, <act>, <eos> special; the rest of the prefix prompt.
 * Exact for streams built by the environments (their actions never hold markers other than the final <eoa>); a
 * policy that writes <obs> inside an action is cut there, so an engine should keep its own classes when it samples.
 */
export function classifyStream(tokens: ArrayLike<number>, out: TokenClass[] = []): TokenClass[] {
  out.length = tokens.length;
  type Mode = 'skill' | 'prompt' | 'head' | 'arg' | 'obs';
  let mode: Mode = tokens.length > 0 && tokens[0] === Special.skill ? 'skill' : 'prompt';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as number;
    if (mode === 'skill') {
      if (t === Special.bos) {
        mode = 'prompt';
        out[i] = TokenClass.special;
      } else out[i] = TokenClass.skill;
      continue;
    }
    if (mode === 'prompt' || mode === 'obs') {
      if (t === Special.act) {
        out[i] = TokenClass.special;
        mode = 'head';
      } else if (t === Special.eos || t === Special.bos) {
        out[i] = TokenClass.special;
      } else {
        out[i] = mode === 'obs' ? TokenClass.observation : TokenClass.prompt;
      }
      continue;
    }
    if (t === Special.obs) {
      out[i] = TokenClass.observation;
      mode = 'obs';
    } else if (mode === 'head') {
      out[i] = TokenClass.actionHead;
      mode = 'arg';
    } else {
      out[i] = TokenClass.actionArg;
    }
  }
  return out;
}
