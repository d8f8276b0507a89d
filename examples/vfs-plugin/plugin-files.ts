// The example plugin's project files, as they are written into the VFS project. They are TypeScript for
// the plugin's isolate (they import `@svc/sdk`, which only exists there), so they live here as text.

export const PLUGIN_ID = 'temperature';

export const PLUGIN_FILES: Record<string, string> = {
  'src/index.ts': `import { definePlugin, Type, errors } from '@svc/sdk';
import { describe, toFahrenheit } from './convert.ts';

export default definePlugin({
  id: '${PLUGIN_ID}',
  version: '1.0.0',
  description: 'Converts temperatures from Celsius to Fahrenheit',
  setup(ctx) {
    ctx.route({
      method: 'POST',
      path: '/convert',
      summary: 'Celsius to Fahrenheit',
      schema: {
        body: Type.Object({ celsius: Type.Number({ minimum: -273.15, maximum: 10000 }) }),
        response: { 200: Type.Object({ celsius: Type.Number(), fahrenheit: Type.Number(), text: Type.String() }) },
      },
      handler: ({ body }) => {
        const fahrenheit = toFahrenheit(body.celsius);
        return { celsius: body.celsius, fahrenheit, text: describe(body.celsius, fahrenheit) };
      },
    });

    ctx.action({
      name: 'CONVERT_TEMPERATURE',
      description: 'Convert a temperature in degrees Celsius to Fahrenheit',
      similes: ['CELSIUS_TO_FAHRENHEIT'],
      parameters: [{ name: 'celsius', description: 'Degrees Celsius', required: true }],
      handler: (params) => {
        const celsius = Number(params.celsius);
        if (!Number.isFinite(celsius)) throw errors.badRequest('celsius must be a number');
        return describe(celsius, toFahrenheit(celsius));
      },
    });

    ctx.log.info('temperature plugin set up');
  },
});
`,
  'src/convert.ts': `export const toFahrenheit = (celsius: number): number => Math.round((celsius * 9 / 5 + 32) * 100) / 100;

export const describe = (celsius: number, fahrenheit: number): string => \`\${celsius} °C is \${fahrenheit} °F\`;
`,
};
