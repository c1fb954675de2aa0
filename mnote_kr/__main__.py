from mnote_kr.cli import console

console()
