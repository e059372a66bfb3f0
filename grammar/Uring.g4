// The grammar of .uring files (docs/language.md is the authority on meaning). ANTLR4 generates a
// C++ parser from it at build time; only compiler/parse/ sees the generated types. Newlines end
// statements: the lexer emits NL tokens and compiler/parse/token_filter.cpp drops the ones that
// cannot end a statement (inside ( ), [ ], after an operator or a comma, before `else`) before the
// parser runs, so the rules below only meet NL where a statement may end.
grammar Uring;

file : (decl | sep)* EOF ;

decl
  : 'import' NAME ('.' NAME)*                                              # importDecl
  | 'const' NAME (':' type)? '=' expr                                      # constDecl
  | 'fn' NAME '(' params? ')' ('->' type)? block                           # fnDecl
  | 'graph' NAME '(' params? ')' ('->' '(' outs=params ')')? block         # graphDecl
  ;

params : param (',' param)* ','? ;
param : NAME ':' type ;

// `shared buffers[..]`, `shared bytes`: the qualifier is a NAME (not a keyword), checked by sema.
type
  : qual=NAME? 'buffers' '[' count=expr ']' 'of' size=expr                 # buffersType
  | qual=NAME? name=NAME                                                   # namedType
  ;

block : '{' sep? (stmt (sep stmt)* sep?)? '}' ;

// An assignment and an expression statement are one alternative: as two, SLL prediction had to
// read every statement's whole left-hand expression to choose between them (most of the parse
// time). The AST builder tells them apart by `op`.
stmt
  : kw=('let' | 'var') NAME (':' type)? ('=' expr)?                        # declStmt
  | ifStmt                                                                 # ifStatement
  | compound within?                                                       # compoundStmt
  | jump                                                                   # jumpStmt
  | lhs=expr (op=('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=')
    rhs=expr)?                                                             # exprStmt
  ;

ifStmt : 'if' expr block ('else' (ifStmt | block))? ;

compound
  : block                                                                  # blockCompound
  | 'while' expr block                                                     # whileCompound
  | 'loop' block                                                           # loopCompound
  | 'repeat' expr block                                                    # repeatCompound
  | 'for' NAME 'in' lo=expr '..' hi=expr block                             # forCompound
  | 'for' NAME 'in' call block                                             # forEachCompound
  | 'parallel' NAME 'in' lo=expr '..' hi=expr block                        # parallelCompound
  | 'all' block                                                            # allCompound
  | 'any' '{' sep? (arm (sep arm)* sep?)? '}'                              # anyCompound
  | 'try' block 'catch' NAME block                                         # tryCompound
  ;

arm : call ('as' NAME)? '=>' block ;

jump
  : 'break'                                                                # breakJump
  | 'continue'                                                             # continueJump
  | 'stop'                                                                 # stopJump
  | 'fail' expr?                                                           # failJump
  | 'return' expr?                                                         # returnJump
  ;

// `within D else ACTION`: D is a primary (parenthesise anything longer).
within : 'within' primary ('else' (block | jump))? ;

call : NAME '(' (expr (',' expr)* ','?)? ')' within? ;

expr
  : primary                                                                # primaryExpr
  | base=expr '[' index=expr ']'                                           # indexExpr
  | base=expr '[' lo=expr? '..' hi=expr? ']'                               # sliceExpr
  | expr '?'                                                               # propagateExpr
  | op=('-' | '!') expr                                                    # unaryExpr
  | lhs=expr op=('*' | '/' | '%') rhs=expr                                 # binaryExpr
  | lhs=expr op=('+' | '-') rhs=expr                                       # binaryExpr
  | lhs=expr op=('<<' | '>>') rhs=expr                                     # binaryExpr
  | lhs=expr op='&' rhs=expr                                               # binaryExpr
  | lhs=expr op='^' rhs=expr                                               # binaryExpr
  | lhs=expr op='|' rhs=expr                                               # binaryExpr
  | lhs=expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') rhs=expr           # binaryExpr
  | lhs=expr op='&&' rhs=expr                                              # binaryExpr
  | lhs=expr op='||' rhs=expr                                              # binaryExpr
  ;

primary
  : call                                                                   # callPrimary
  | INT unit=NAME                                                          # quantityPrimary
  | INT                                                                    # intPrimary
  | STRING                                                                 # stringPrimary
  | ('true' | 'false')                                                     # boolPrimary
  | NAME                                                                   # namePrimary
  | '(' expr ')'                                                           # parenPrimary
  ;

sep : (NL | ';')+ ;

NAME : [A-Za-z_] [A-Za-z0-9_]* ;
INT : [0-9] [0-9_]* | '0x' [0-9a-fA-F_]+ ;
// A byte string: any byte but `"`, `\` and line ends, or an escape \n \r \t \0 \\ \" \xHH. An unknown
// escape does not match, so it becomes an ERROR_CHAR the parser reports.
STRING : '"' (~["\\\r\n] | '\\' [nrt0\\"] | '\\x' [0-9a-fA-F] [0-9a-fA-F])* '"' ;
NL : '\r'? '\n' ;
WS : [ \t\f]+ -> skip ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// Anything else becomes one token the parser rejects, so the lexer never stops early.
ERROR_CHAR : . ;
