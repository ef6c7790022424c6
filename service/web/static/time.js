// Times come in UTC (<time datetime="...Z">, to the minute in the text); each is shown
// in the browser's own time zone and language, to the minute, with the UTC text kept
// as its title.
const shown = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

for (const element of document.querySelectorAll("time[datetime]")) {
  const at = new Date(element.dateTime);
  if (Number.isNaN(at.getTime())) continue;  // a stored time past what a Date holds
  element.title = element.textContent;
  element.textContent = shown.format(at);
}
