import { pick } from './text.ts';

/**
 * Classic ELIZA (Weizenbaum, 1966) decomposition and reassembly rules, in the spirit of the DOCTOR
 * script, softened for an assistant. `{0}` is the captured fragment with pronouns reflected.
 */
const RULES: { pattern: RegExp; replies: string[] }[] = [
  { pattern: /\bi need (.+)/, replies: ['Why do you need {0}?', 'Would it really help you to get {0}?', 'Are you sure you need {0}?'] },
  { pattern: /\bwhy don'?t you ([^?]+)/, replies: ['Do you really think I don\'t {0}?', 'Perhaps I will {0} in good time.', 'Would you like me to {0}?'] },
  { pattern: /\bwhy can'?t i ([^?]+)/, replies: ['Do you think you should be able to {0}?', 'If you could {0}, what would you do?', 'What is stopping you?'] },
  { pattern: /\bi can'?t (.+)/, replies: ['How do you know you can\'t {0}?', 'Perhaps you could {0} if you tried.', 'What would it take for you to {0}?'] },
  { pattern: /\bi feel (.+)/, replies: ['Tell me more about feeling {0}.', 'Do you often feel {0}?', 'When do you usually feel {0}?'] },
  { pattern: /\bi(?: am|'m) (.+)/, replies: ['How long have you been {0}?', 'How do you feel about being {0}?', 'Why do you say you are {0}?'] },
  { pattern: /\bi think (.+)/, replies: ['Do you doubt {0}?', 'What makes you think {0}?', 'Are you sure?'] },
  { pattern: /\bi want (.+)/, replies: ['What would it mean to you if you got {0}?', 'Why do you want {0}?', 'What could you do today toward {0}?'] },
  { pattern: /\bi don'?t (.+)/, replies: ['Don\'t you really {0}?', 'Why don\'t you {0}?', 'Would you like to {0}?'] },
  { pattern: /\bi have (.+)/, replies: ['Why do you tell me that you have {0}?', 'Have you really {0}?', 'Now that you have {0}, what comes next?'] },
  { pattern: /\bi would (.+)/, replies: ['Could you explain why you would {0}?', 'Why would you {0}?', 'Who else knows that you would {0}?'] },
  { pattern: /\bare you ([^?]+)/, replies: ['Why does it matter whether I am {0}?', 'Would you prefer it if I were not {0}?', 'Perhaps you believe I am {0}.'] },
  { pattern: /\byou are (.+)/, replies: ['Why do you think I am {0}?', 'Does it please you to think that I\'m {0}?', 'Perhaps you would like me to be {0}.'] },
  { pattern: /\bcan you ([^?]+)/, replies: ['What makes you think I can\'t {0}?', 'If I could {0}, then what?', 'Why do you ask if I can {0}?'] },
  { pattern: /\bcan i ([^?]+)/, replies: ['Perhaps you don\'t want to {0}.', 'Do you want to be able to {0}?', 'If you could {0}, would you?'] },
  { pattern: /\bis there (.+)/, replies: ['Do you think there is {0}?', 'It\'s likely that there is {0}.', 'Would you like there to be {0}?'] },
  { pattern: /\bmy (.+)/, replies: ['I see, your {0}.', 'Why do you say that your {0}?', 'How do you feel about your {0}?'] },
  { pattern: /\bbecause (.+)/, replies: ['Is that the real reason?', 'What other reasons come to mind?', 'Does that reason apply to anything else?'] },
  { pattern: /\b(?:sorry|apologi[sz]e)\b/, replies: ['There are many times when no apology is needed.', 'No need to apologize.', 'What feelings do you have when you apologize?'] },
  { pattern: /\b(?:mother|father|mom|dad|family|sister|brother|parents?)\b/, replies: ['Tell me more about your family.', 'How do you get along with your family?', 'Who in your family are you closest to?'] },
  { pattern: /\bfriends?\b/, replies: ['Tell me more about your friends.', 'What do you value most in a friend?', 'Why do you bring up friends?'] },
  { pattern: /\b(?:computer|robot|machine|ai|bot)\b/, replies: ['Are you really talking about me?', 'Does it seem strange to talk to a program?', 'What do you think about machines like me?'] },
  { pattern: /\bwhy (.+)/, replies: ['Why do you think {0}?', 'What do you think?', 'Is that something you have wondered about before?'] },
  { pattern: /^(?:yes|yeah|yep|sure)\b/, replies: ['You seem quite sure.', 'OK, can you tell me a bit more?', 'I see. What comes next?'] },
  { pattern: /^(?:no|nope|nah)\b/, replies: ['Why not?', 'OK. What would you rather talk about?', 'You sound certain.'] },
  { pattern: /\byou\b/, replies: ['We were talking about you, not me.', 'Let\'s keep the focus on you: what\'s on your mind?', 'Why do you say that about me?'] },
];

const FALLBACKS = [
  'Please tell me more.',
  'I see. Go on.',
  'That\'s interesting. What makes you say that?',
  'How does that make you feel?',
  'Can you say a bit more about that?',
];

const REFLECTIONS: Record<string, string> = {
  i: 'you', me: 'you', my: 'your', mine: 'yours', myself: 'yourself', am: 'are', was: 'were', "i'm": "you're", "i've": "you've",
  "i'll": "you'll", "i'd": "you'd", you: 'me', your: 'my', yours: 'mine', yourself: 'myself', are: 'am', "you're": "I'm",
  "you've": "I've", "you'll": "I'll", "you'd": "I'd",
};

/** Swaps first and second person: "my plans for me" → "your plans for you". */
export function reflect(fragment: string): string {
  return fragment.split(/\s+/).map((word) => REFLECTIONS[word.toLowerCase()] ?? word).join(' ');
}

/** The first matching rule's reply (the variant chosen by `seed`), or a neutral prompt to go on. */
export function elizaReply(text: string, seed: number): string {
  const input = text.toLowerCase().replace(/[’]/g, "'").replace(/[.!?]+\s*$/, '').trim();
  for (const rule of RULES) {
    const match = rule.pattern.exec(input);
    if (match) return pick(rule.replies, seed).replace('{0}', reflect((match[1] ?? '').replace(/[.!?,;]+$/, '').trim()));
  }
  return pick(FALLBACKS, seed);
}
