/** Number formatting shared by the report writers (fixed decimals, so the same numbers print the same). */

export function metric(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toFixed(3);
}

/** Signed delta with a real minus sign: "+0.012", "−0.050", "±0.000". */
export function signed(value: number | undefined): string {
  if (value === undefined) return '';
  const rounded = Number(value.toFixed(3));
  if (rounded === 0) return '±0.000';
  return (rounded > 0 ? '+' : '−') + Math.abs(rounded).toFixed(3);
}

/** Short delta for heat-map cells: "−.12", "+.03", "0". */
export function shortSigned(value: number): string {
  const rounded = Number(value.toFixed(2));
  if (rounded === 0) return '0';
  return (rounded > 0 ? '+' : '−') + Math.abs(rounded).toFixed(2).replace(/^0/, '');
}

export function ms(value: number | undefined): string {
  if (value === undefined) return '–';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** Escape text for a markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}
