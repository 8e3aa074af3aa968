/**
 * The product pictures, drawn here as small flat SVGs (nothing is fetched from anywhere). Each is
 * a 200 x 150 scene on a soft disc of the product's tint.
 */

interface Drawing {
  readonly tint: string;
  readonly body: string;
}

const INK = '#1f2937';

const DRAWINGS: Readonly<Record<string, Drawing>> = {
  mug: {
    tint: '#ccfbf1',
    body: `<path d="M82 38c-4-8 4-12 0-20M100 38c-4-8 4-12 0-20M118 38c-4-8 4-12 0-20" stroke="#94a3b8" stroke-width="4" fill="none" stroke-linecap="round"/>
<path d="M136 62h8a18 18 0 0 1 0 36h-8" stroke="#0f766e" stroke-width="9" fill="none"/>
<rect x="62" y="46" width="78" height="76" rx="12" fill="#14b8a6"/>
<rect x="62" y="46" width="78" height="14" rx="7" fill="#0f766e"/>
<path d="M76 74h24" stroke="#f0fdfa" stroke-width="6" stroke-linecap="round" opacity=".7"/>`,
  },
  kettle: {
    tint: '#ffedd5',
    body: `<path d="M70 54q30-36 60 0" stroke="${INK}" stroke-width="8" fill="none" stroke-linecap="round"/>
<path d="M56 122q-6-58 44-66q50 8 44 66z" fill="#ea580c"/>
<path d="M142 92l26-22" stroke="#c2410c" stroke-width="10" stroke-linecap="round"/>
<rect x="50" y="118" width="100" height="10" rx="5" fill="#9a3412"/>
<circle cx="100" cy="54" r="7" fill="${INK}"/>
<path d="M74 96q6-22 22-28" stroke="#fed7aa" stroke-width="6" fill="none" stroke-linecap="round"/>`,
  },
  lamp: {
    tint: '#fef9c3',
    body: `<path d="M118 44l34 30-40 22z" fill="#facc15" opacity=".45"/>
<rect x="60" y="120" width="64" height="10" rx="5" fill="${INK}"/>
<path d="M92 120l-18-44 40-30" stroke="#475569" stroke-width="7" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
<circle cx="74" cy="76" r="7" fill="${INK}"/><circle cx="114" cy="46" r="7" fill="${INK}"/>
<path d="M104 26l40 22-14 22-40-22z" fill="#eab308"/>`,
  },
  fern: {
    tint: '#dcfce7',
    body: `<path d="M100 96V40M100 96Q72 70 56 44M100 96q28-26 44-52M100 96Q80 82 58 80M100 96q20-14 42-16" stroke="#16a34a" stroke-width="7" fill="none" stroke-linecap="round"/>
<path d="M100 50l-10 6M100 62l10 6M100 62l-10 6M100 50l10 6M70 58l-2 12M130 58l2 12" stroke="#22c55e" stroke-width="6" stroke-linecap="round"/>
<path d="M70 96h60l-8 34H78z" fill="#c2410c"/><rect x="64" y="92" width="72" height="12" rx="4" fill="#9a3412"/>`,
  },
  notebook: {
    tint: '#e0e7ff',
    body: `<rect x="66" y="28" width="74" height="100" rx="8" fill="#4f46e5"/>
<rect x="66" y="28" width="14" height="100" rx="6" fill="#3730a3"/>
<rect x="126" y="28" width="6" height="100" fill="#fbbf24"/>
<rect x="90" y="50" width="36" height="16" rx="3" fill="#eef2ff"/>
<g fill="#a5b4fc">${Array.from({ length: 12 }, (_, i) => `<circle cx="${94 + (i % 4) * 10}" cy="${82 + Math.floor(i / 4) * 10}" r="2"/>`).join('')}</g>`,
  },
  headphones: {
    tint: '#f3e8ff',
    body: `<path d="M56 96V80a44 44 0 0 1 88 0v16" stroke="${INK}" stroke-width="9" fill="none" stroke-linecap="round"/>
<rect x="44" y="84" width="28" height="44" rx="12" fill="#9333ea"/><rect x="128" y="84" width="28" height="44" rx="12" fill="#9333ea"/>
<rect x="62" y="90" width="12" height="32" rx="6" fill="#6b21a8"/><rect x="126" y="90" width="12" height="32" rx="6" fill="#6b21a8"/>`,
  },
  backpack: {
    tint: '#fef3c7',
    body: `<path d="M84 36a16 16 0 0 1 32 0" stroke="#78350f" stroke-width="7" fill="none"/>
<rect x="58" y="36" width="84" height="96" rx="24" fill="#a16207"/>
<rect x="70" y="84" width="60" height="40" rx="10" fill="#854d0e"/>
<path d="M58 66q42 16 84 0" stroke="#854d0e" stroke-width="6" fill="none"/>
<rect x="94" y="78" width="12" height="18" rx="3" fill="#fde68a"/>`,
  },
  camera: {
    tint: '#fee2e2',
    body: `<rect x="46" y="40" width="108" height="86" rx="16" fill="#f8fafc" stroke="${INK}" stroke-width="5"/>
<rect x="46" y="104" width="108" height="22" rx="8" fill="#e11d48"/>
<circle cx="100" cy="78" r="24" fill="${INK}"/><circle cx="100" cy="78" r="13" fill="#334155"/><circle cx="94" cy="72" r="4" fill="#cbd5e1"/>
<rect x="128" y="50" width="16" height="10" rx="3" fill="#334155"/><circle cx="60" cy="54" r="5" fill="#e11d48"/>`,
  },
  record: {
    tint: '#e2e8f0',
    body: `<circle cx="100" cy="76" r="56" fill="#111827"/>
<circle cx="100" cy="76" r="44" fill="none" stroke="#374151" stroke-width="2"/><circle cx="100" cy="76" r="34" fill="none" stroke="#374151" stroke-width="2"/>
<circle cx="100" cy="76" r="18" fill="#ec4899"/><circle cx="100" cy="76" r="4" fill="#f8fafc"/>
<path d="M62 44a50 50 0 0 1 22-14" stroke="#6b7280" stroke-width="4" fill="none" stroke-linecap="round"/>`,
  },
  watch: {
    tint: '#dbeafe',
    body: `<rect x="84" y="18" width="32" height="116" rx="10" fill="#78350f"/>
<circle cx="100" cy="76" r="36" fill="#1e3a8a"/><circle cx="100" cy="76" r="29" fill="#f8fafc"/>
<path d="M100 76V56M100 76l14 8" stroke="${INK}" stroke-width="5" stroke-linecap="round"/>
<rect x="134" y="71" width="8" height="10" rx="2" fill="#1e3a8a"/><circle cx="100" cy="76" r="3" fill="#dc2626"/>`,
  },
};

/** The SVG picture of a product, or undefined for an id without a drawing. */
export function drawing(id: string): string | undefined {
  const d = DRAWINGS[id];
  if (d === undefined) return undefined;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 150" role="img" aria-label="${id}">
<circle cx="100" cy="76" r="68" fill="${d.tint}"/>
${d.body}
</svg>`;
}
