// string-width as the bundle has it (scripts/bundle.mjs): the same function, loaded on its first call.
// On import string-width builds an Intl.Segmenter and Unicode-property regular expressions, some 27 ms
// of every command's start, for the help text that yargs, cliui and wrap-ansi measure and that most
// runs never print. require() makes esbuild evaluate it when first called rather than at start-up.
let stringWidth;

export default function lazyStringWidth(text, options) {
  stringWidth ??= require('string-width').default;
  return stringWidth(text, options);
}
