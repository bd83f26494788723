// Saving files from the page: a Blob through a temporary object URL and an <a download>.
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const saveText = (text: string, fileName: string, type = 'text/plain') =>
  saveBlob(new Blob([text], { type }), fileName);
