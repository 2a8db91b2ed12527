import json
from probe import probe
from learn import split_ops
PROBES=[(0xF8,None),(0xF0,None),(0xC1,None),(0xFF,0x3f000000),(0xFF,0x3800),(0xFF,0x3fe00000),(0xFF,0xfffffff0),(0xFF,0x1234),(0xFF,0xbc00),(0xFF,0x3c003c00),(20,None),(106,None),(254,None),(107,None),(108,None),(124,None),(125,None),(126,None),(127,None)]
FIELDS={'VOP1':{'src0':(0,0)},'VOP2':{'src0':(0,0)},'VOPC':{'src0':(0,0)},
        'VOP3':{'src0':(1,0),'src1':(1,9),'src2':(1,18)},
        'VOP1_SDWA':{'dsrc0':(1,0,(1,23))},'VOP2_SDWA':{'dsrc0':(1,0,(1,23)),'vsrc1':(0,9,(1,31))},'VOPC_SDWA':{'dsrc0':(1,0,(1,23)),'vsrc1':(0,9,(1,31))},
        'SOP1':{'ssrc0':(0,0)},'SOP2':{'ssrc0':(0,0),'ssrc1':(0,8)},'SOPC':{'ssrc0':(0,0),'ssrc1':(0,8)},
        'MUBUF':{'soffset':(1,24)},'MTBUF':{'soffset':(1,24)},'VOP3P':{'src0':(1,0),'src1':(1,9),'src2':(1,18)}}
DFIELDS={'VOP1':{'vdst':(0,17,0xff)},'VOP3':{'vdst':(0,0,0xff),'sdst':(0,8,0x7f)},'SMEM':{'sdata':(0,6,0x7f),'sbase':(0,0,0x3f)},'SOP1':{'sdst':(0,16,0x7f)},'SOP2':{'sdst':(0,16,0x7f)},'SOPK':{'sdst':(0,16,0x7f)},'SCRATCH':{'saddr':(1,16,0x7f)},'SCRATCH_GLC':{'saddr':(1,16,0x7f)},'GLOBAL':{'saddr':(1,16,0x7f)},'GLOBAL_GLC':{'saddr':(1,16,0x7f)}}
import sys
FILE=sys.argv[1] if len(sys.argv)>1 else 'vop_learn.json'
d=json.load(open(FILE))
# SMEM sbase holds register/2: probe s20, s20, vcc, vcc, ttmp0, m0-pair, m0-pair, exec, exec, s20
DPL={('SMEM','sbase'):[(10,None),(10,None),(53,None),(53,None),(54,None),(62,None),(62,None),(63,None),(63,None),(10,None)]}
for cpu in d:
    for fam,ops in d[cpu].items():
        for i in ops.values(): i['imm']={}
        cands=[];keys=[]
        for op,i in ops.items():
            for fn,ch in i.get('map',{}).items():
                if len(ch)!=1 or ch[0] in ('mods','mn'): continue
                if fn in FIELDS.get(fam,{}):
                    ent=FIELDS[fam][fn]; wi,lo=ent[0],ent[1]; fw=0x1ff if fam.startswith('VOP') and len(ent)==2 else 0xff; pl=PROBES
                    extra=ent[2] if len(ent)>2 else None
                elif fn in DFIELDS.get(fam,{}):
                    extra=None
                    wi,lo,fw=DFIELDS[fam][fn]; pl=DPL.get((fam,fn),[(20,None),(160,None),(106,None),(107,None),(108,None),(124,None),(125,None),(126,None),(127,None),(254,None)])
                else: continue
                for pv,lit in pl:
                    w=list(i['words'])
                    w[wi]&=~(fw<<lo); w[wi]|=(pv&fw)<<lo
                    if extra: w[extra[0]]|=1<<extra[1]
                    cands.append(w+([lit] if lit is not None else [])+[0xbf800000]*2); keys.append((op,fn,ch[0]))
        out=probe(cands,cpu)
        for (op,fn,pos),o in zip(keys,out):
            i=ops[op]; i.setdefault('imm',{}).setdefault(fn,[])
            if not o or o in ('?','CRASH'): i['imm'][fn].append(None); continue
            mn,toks,mods=split_ops(o)
            i['imm'][fn].append(toks[pos] if pos<len(toks) else '?')
json.dump(d,open(FILE,'w'),indent=0)
from collections import Counter
c=Counter()
for cpu in d:
    for fam,ops in d[cpu].items():
        for op,i in ops.items():
            for fn,v in i.get('imm',{}).items(): c[tuple(v)]+=1
for k,v in c.most_common(): print(v,k)
