import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS whose types declare an ES default export: Node hands the function as the default, and
// TypeScript sees the module object; the function is its `default` either way.
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default;

/** The text a QR code PNG encodes, as a phone's camera reads it; throws when the image holds none. */
export function decodeQrPng(png: Buffer): string {
  const image = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (code === null) throw new Error('no QR code found in the image');
  return code.data;
}
