# Nothing expires in the test bed (expire is never run anyway).
/remember/:0
*:A:never:never:never
